"""The ladder: a season of versions, matchmaking, validation games and its log."""
