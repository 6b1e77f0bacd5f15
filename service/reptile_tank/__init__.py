"""Reptile Tank at the table: game in progress, photo reads, score pads, records, drafts."""
