"""What the OpenSpiel games and the PettingZoo environment share, in plain Python (no
third-party import): the fixed action ids of a game config, and the encoding of a seat's
observation as named pieces of a flat vector."""
