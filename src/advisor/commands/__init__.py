"""CLI commands, one module each. They parse options, call advisor.api, render and write;
errors are raised as AdvisorError and mapped to exit codes by advisor.cli.main."""
