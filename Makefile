# Thin aliases for dev.py, which needs nothing but Python 3.11+.
.PHONY: serve test bench lint
serve: ; python3 dev.py serve
test:  ; python3 dev.py test
bench: ; python3 dev.py bench
lint:  ; python3 dev.py lint
