-- Backups hold every password hash and the token signing key: reading one is as good
-- as being an administrator. `backups:read` and `backups:write` gave that away to any
-- role they were added to; one grant `backups:admin` (held by ADMIN, seeded at start)
-- replaces them, and roles that had the old ones lose them.
DELETE FROM grants WHERE name IN ('backups:read', 'backups:write');
