"""Tournaments: config (YAML -> frozen, file:line errors), schedules, seeds, the run on
the executor, and the results folder. It knows no rule of the game and builds no report."""
