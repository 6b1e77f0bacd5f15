"""Reptile Tank's photo reader: grid finding, the card embedder and galleries, synthetic photos."""
