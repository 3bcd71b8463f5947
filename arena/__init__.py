"""arena: a referee and tournament runner for Liar's Poker bots."""
