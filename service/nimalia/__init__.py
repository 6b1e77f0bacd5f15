"""Nimalia at the table: the app's game document and the night's own deck."""
