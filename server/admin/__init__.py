"""The host's tools: the ``mission-impractical`` command (:mod:`server.admin.cli`), which
serves the game on the SSH host in :mod:`server`, and what the host runs beside it
(``status``, ``backup``, ``restore``, ``prune``, ``kick``, ``ban``: :mod:`.tools`), the
tables they share with the running server (:mod:`.db`), the server's side of bans and
kicks (:mod:`.control`), and how its log is written (:mod:`.oplog`, :mod:`.log_limits`).
"""
