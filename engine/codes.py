"""The codes people read aloud: a table's four letters and a seat's six (a keyless
guest's way back to their seat), and the seed each new table's game is dealt from.

Random in service; counted from a seed in tests and benches, so their codes and games come
out the same every run.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: codes are read aloud


class Codes:
    def __init__(self, seed: str | None = None) -> None:
        self.seed = seed
        self._count = 0  # one count for table and seat codes alike

    def table_code(self, taken: Callable[[str], bool]) -> str:
        """Four letters no table holds (``taken`` says which are held)."""
        while True:
            if self.seed is None:
                code = "".join(secrets.choice(CODE_LETTERS) for _ in range(4))
            else:
                self._count += 1
                n, letters = self._count, []
                for _ in range(4):
                    n, r = divmod(n, len(CODE_LETTERS))
                    letters.append(CODE_LETTERS[r])
                code = "".join(letters)
            if not taken(code):
                return code

    def seat_code(self) -> str:
        """Six letters a keyless guest uses to reclaim their seat."""
        if self.seed is None:
            return "".join(secrets.choice(CODE_LETTERS) for _ in range(6))
        self._count += 1
        rng = random.Random(f"{self.seed}/seat/{self._count}")
        return "".join(rng.choices(CODE_LETTERS, k=6))

    def table_seed(self, code: str) -> str:
        """What table ``code``'s games are dealt from."""
        return secrets.token_hex(8) if not self.seed else f"{self.seed}/{code}"
