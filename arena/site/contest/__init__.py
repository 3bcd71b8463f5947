"""The contest app: participants, their bots and versions, and the index of played games."""
