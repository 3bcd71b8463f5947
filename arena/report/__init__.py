"""report.html and the replay viewer (static/): reads a results folder, writes pages
that work offline. Never imported by the runner."""
