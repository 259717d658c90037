// The environment's network, all inside namespaces it creates: a bridge in the environment namespace (the
// control plane's node-facing side), and per node a namespace joined to it by a veth pair, with a route to the
// node's Pod subnet. Cutting a node's network takes its veth end on the bridge down.
import { type NodeLayout, nodeNetwork, serviceCidr } from './layout.js';
import { createNetns, ip, nsSysctl } from './netns.js';

/** Creates the environment namespace at `path` with its bridge up and forwarding on. */
export async function createEnvironmentNetwork(path: string): Promise<void> {
  await createNetns(path);
  await ip(path, ['link', 'add', nodeNetwork.bridge, 'type', 'bridge']);
  await ip(path, ['addr', 'add', `${nodeNetwork.gateway}/${nodeNetwork.prefix}`, 'dev', nodeNetwork.bridge]);
  await ip(path, ['link', 'set', nodeNetwork.bridge, 'up']);
  // A route for Service cluster IPs, so a connection made here gets as far as the environment's kube-proxy
  // rules, which rewrite it to a Pod (without one, connect() fails before iptables sees it).
  await ip(path, ['route', 'add', serviceCidr, 'dev', nodeNetwork.bridge]);
  await nsSysctl(path, 'net.ipv4.ip_forward', '1');
}

/** Creates the node's namespace and wires it to the environment's bridge. */
export async function addNodeNetwork(envNetns: string, node: NodeLayout): Promise<void> {
  await createNetns(node.netnsPath);
  await ip(envNetns, [
    'link',
    'add',
    node.hostVeth,
    'type',
    'veth',
    'peer',
    'name',
    'eth0',
    'netns',
    node.netnsPath,
  ]);
  await ip(envNetns, ['link', 'set', node.hostVeth, 'master', nodeNetwork.bridge, 'up']);
  await ip(node.netnsPath, ['addr', 'add', `${node.ip}/${nodeNetwork.prefix}`, 'dev', 'eth0']);
  await ip(node.netnsPath, ['link', 'set', 'eth0', 'up']);
  await ip(node.netnsPath, ['route', 'add', 'default', 'via', nodeNetwork.gateway]);
  await ip(envNetns, ['route', 'add', node.podCidr, 'via', node.ip]);
  await nsSysctl(node.netnsPath, 'net.ipv4.ip_forward', '1');
  // Pod → Service → Pod on the same bridge: the reply is bridged, so iptables must see bridged traffic to undo
  // kube-proxy's DNAT (per namespace since Linux 5.3).
  await nsSysctl(node.netnsPath, 'net.bridge.bridge-nf-call-iptables', '1');
}

/** Cuts (`up = false`) or restores the node's link to the rest of the environment. */
export async function setNodeLink(envNetns: string, node: NodeLayout, up: boolean): Promise<void> {
  await ip(envNetns, ['link', 'set', node.hostVeth, up ? 'up' : 'down']);
}
