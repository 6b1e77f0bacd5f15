"""Reptile Tank's rules: card vocabulary, the rules data file, the engine (pure Python)."""
