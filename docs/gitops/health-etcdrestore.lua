-- Argo CD health of etcd.gitops.dev/EtcdRestore (Lua 5.1, as Argo CD runs it).
-- Completed is Healthy, Failed is Degraded, every other phase is Progressing.
local hs = {}
local status = obj.status

if status == nil or status.phase == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to start the restore"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
local stale = status.observedGeneration ~= nil and generation ~= nil and status.observedGeneration < generation

if status.phase == "Completed" and not stale then
  hs.status = "Healthy"
  hs.message = status.message or "Restore completed"
elseif status.phase == "Failed" and not stale then
  hs.status = "Degraded"
  hs.message = status.message or "Restore failed"
else
  hs.status = "Progressing"
  hs.message = status.phase .. (status.message and (": " .. status.message) or "")
end
return hs
