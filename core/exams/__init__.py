"""Exam papers for teachers: building a class paper as the flows would (papers) and printing it (printing)."""
