"""The blind read's rounds, keys and answers (see engine/blind_read.py and __main__.py)."""
