"""The variable catalogue generator: server and manual extracts -> src/advisor/knowledge/generated-*.json."""
