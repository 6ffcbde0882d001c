"""Session flows: state machines whose every event is stored before the flow moves on."""
