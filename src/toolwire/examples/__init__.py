"""Example tools used in the toolwire book and documentation."""
