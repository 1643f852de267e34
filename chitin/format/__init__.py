"""The insight file format, as pure functions over text: Markdown with YAML
frontmatter (``markdown``, ``frontmatter``), where files go (``layout``), and what a
hand-edited file gets wrong (``lint``). No IO: ``store`` reads and writes the files."""
