"""Insight values, enumerations, validation and ids. Standard library only."""
