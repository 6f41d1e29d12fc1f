"""A Textual-over-SSH host: an asyncssh server whose every session runs one Textual app.

All apps live in this one process, on one asyncio loop. The modules here know nothing of
the game or of the host's tools: :func:`server.ssh_server.start_server` takes the app
factory and a :class:`server.ssh_server.HostSide` (bans, the record of who is connected)
as arguments. The host's tools, the command line that runs the real game among them, are
in :mod:`server.admin` (``mission-impractical serve``, :mod:`server.admin.cli`).
"""
