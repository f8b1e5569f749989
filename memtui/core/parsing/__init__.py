"""What a command says: the tool input validated field by field and its paths resolved to
parts, before anything is done; the parsed command and outcome types."""
