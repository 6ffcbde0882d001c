"""The demo class the app loads on first run (classroom) and the class simulator behind it (simulate)."""
