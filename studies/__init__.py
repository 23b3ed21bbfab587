"""The scripts that print every table a chapter records (see studies/common.py)."""
