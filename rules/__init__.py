"""The rule catalogue: one TOML rule per file under <area>/. Data only; shipped as advisor.catalog."""
