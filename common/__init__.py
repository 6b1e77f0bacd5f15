"""Helpers below every layer: bounded, safe reading of files and documents."""
