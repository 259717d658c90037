-- Argo CD health of etcd.gitops.dev/EtcdCluster (Lua 5.1, as Argo CD runs it).
-- Suspended while spec.paused; Progressing until the controller has observed the current generation (older
-- conditions describe an older spec); then Degraded when Degraded=True, Progressing while Progressing=True,
-- Healthy when Ready=True, Degraded when Ready=False with nothing in progress.
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

if obj.spec ~= nil and obj.spec.paused == true then
  hs.status = "Suspended"
  hs.message = "Paused: the controller reports status but changes nothing"
  return hs
end

local status = obj.status
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

local degraded = condition(status, "Degraded")
if degraded ~= nil and degraded.status == "True" then
  hs.status = "Degraded"
  hs.message = degraded.message or degraded.reason or "Degraded"
  return hs
end

local progressing = condition(status, "Progressing")
if progressing ~= nil and progressing.status == "True" then
  hs.status = "Progressing"
  hs.message = progressing.message or progressing.reason or "Progressing"
  return hs
end

local ready = condition(status, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or "Ready"
  return hs
end

if ready ~= nil and ready.status == "False" then
  -- Not ready and nothing in progress: the cluster is not converging by itself.
  hs.status = "Degraded"
  hs.message = ready.message or ready.reason or "Not ready"
  return hs
end

hs.status = "Progressing"
hs.message = "Waiting for the Ready condition"
return hs
