"""Ratings over a results log: batch Bradley-Terry Elo with intervals, OpenSkill,
standings and the crosstable. Pure reading of game outcomes."""
