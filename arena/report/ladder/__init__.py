"""A ladder's sections of the report: ladder.json read into values, drawn, charted."""
