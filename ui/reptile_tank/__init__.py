"""Reptile Tank's pages and widgets."""
