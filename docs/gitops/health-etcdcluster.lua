-- Argo CD health of etcd.gitops.dev/EtcdCluster (Lua 5.1, as Argo CD runs it); the conditions' meaning is
-- docs/design/conventions.md, "Conditions and health". In order:
--   spec.paused: Degraded while the controller reports quorum lost (Degraded, reason QuorumLost), else Suspended;
--   no status, or status.observedGeneration < metadata.generation (older conditions describe an older spec):
--     Progressing;
--   Stalled=True (a fault only the user clears): Degraded;
--   Progressing=True, also with Degraded=True (a fault being repaired): Progressing;
--   Degraded=True: Degraded;  Ready=False with nothing in progress: Degraded;
--   Ready=True: Healthy, unless BackupReady=False (docs/design/backup-status.md): with reason BackupTooOld (no
--     backup in twice a schedule's longest gap) or DrillFailed (the newest backup did not restore in its drill,
--     docs/design/restore-drill.md) Degraded; any other (one failed attempt) Healthy, its message told.
local hs = {}

local function condition(status, kind)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local function isTrue(c)
  return c ~= nil and c.status == "True"
end

local function say(health, c, fallback)
  hs.status = health
  hs.message = (c and (c.message or c.reason)) or fallback
  return hs
end

local status = obj.status

if obj.spec ~= nil and obj.spec.paused == true then
  local degraded = condition(status, "Degraded")
  if isTrue(degraded) and degraded.reason == "QuorumLost" then
    return say("Degraded", degraded, "Quorum lost")
  end
  hs.status = "Suspended"
  hs.message = "Paused: the controller reports status but changes nothing"
  return hs
end

if status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to observe the cluster"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
if status.observedGeneration == nil or (generation ~= nil and status.observedGeneration < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to observe generation " .. tostring(generation)
  return hs
end

local stalled = condition(status, "Stalled")
if isTrue(stalled) then
  return say("Degraded", stalled, "Stalled")
end

local progressing = condition(status, "Progressing")
if isTrue(progressing) then
  return say("Progressing", progressing, "Progressing")
end

local degraded = condition(status, "Degraded")
if isTrue(degraded) then
  return say("Degraded", degraded, "Degraded")
end

local ready = condition(status, "Ready")
if isTrue(ready) then
  local backups = condition(status, "BackupReady")
  if backups ~= nil and backups.status == "False" then
    if backups.reason == "BackupTooOld" then
      return say("Degraded", backups, "Backups too old")
    end
    if backups.reason == "DrillFailed" then
      return say("Degraded", backups, "The newest backup did not restore")
    end
    hs.status = "Healthy"
    hs.message = ((ready.message or ready.reason) or "Ready") .. "; backups: " .. (backups.message or backups.reason)
    return hs
  end
  return say("Healthy", ready, "Ready")
end

if ready ~= nil and ready.status == "False" then
  -- Not ready, no fault reported and nothing in progress: the cluster is not converging by itself.
  return say("Degraded", ready, "Not ready")
end

hs.status = "Progressing"
hs.message = "Waiting for the Ready condition"
return hs
