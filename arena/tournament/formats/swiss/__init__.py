"""The Swiss format: rounds of tables of close scores, their pairing and stages.json."""
