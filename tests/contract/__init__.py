"""The model-contract test (see framework.py for how to add a row)."""
