"""Command analysis: parse a shell command with tree-sitter-bash and decide allow, deny or ask."""
