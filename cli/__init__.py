"""The campus command line."""
