"""Nimalia's page and widgets."""
