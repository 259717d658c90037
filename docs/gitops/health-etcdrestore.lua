-- Argo CD health of etcd.gitops.dev/EtcdRestore (Lua 5.1, as Argo CD runs it); docs/design/conventions.md,
-- "Conditions and health". Progressing until the controller has observed the current generation and set a phase;
-- then Degraded when Stalled=True or the phase is Failed, Healthy when Completed, Progressing in every other phase
-- (also while a problem is retried: Degraded=True with Progressing=True).
local hs = {}
local status = obj.status

if status == nil or status.phase == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to start the restore"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
local stale = status.observedGeneration ~= nil and generation ~= nil and status.observedGeneration < generation

local stalled = nil
for _, c in ipairs(status.conditions or {}) do
  if c.type == "Stalled" and c.status == "True" then
    stalled = c
  end
end

if stale then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to observe generation " .. tostring(generation)
elseif stalled ~= nil or status.phase == "Failed" then
  hs.status = "Degraded"
  hs.message = status.message or (stalled and stalled.message) or "Restore failed"
elseif status.phase == "Completed" then
  hs.status = "Healthy"
  hs.message = status.message or "Restore completed"
else
  hs.status = "Progressing"
  hs.message = status.phase .. (status.message and (": " .. status.message) or "")
end
return hs
