"""chitin: personality persistence for AI agents, kept as Markdown files in git."""

__version__ = "0.1.0"
