"""The SSH front door: an asyncssh server whose every session runs one Textual app.

All apps live in this one process, on one asyncio loop, and share the game hub. Build a
server from code with :func:`server.ssh_server.start_server`; run one from the shell with
``mission-impractical serve`` (:mod:`server.cli`).
"""
