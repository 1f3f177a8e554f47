from advisor.cli import script

script()
