"""The run of a tournament: the runner, its workers and the results folder it writes."""
