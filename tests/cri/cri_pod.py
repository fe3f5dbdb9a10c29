#!/usr/bin/env python3
# cri_pod.py - one pod through a CRI runtime's socket, as a kubelet makes
# it: a sandbox on the host network (no CNI) under a given cgroup parent,
# and one container spinning in it.  Beside api_pb2*.py compiled from
# tests/cri/api.proto.
#   cri_pod.py SOCKET run NAMESPACE POD UID CONTAINER IMAGE CGROUP_PARENT LOGDIR
#     prints "sandbox ID" and "container ID"
#   cri_pod.py SOCKET rm SANDBOX_ID
import sys
import grpc
import api_pb2 as pb
import api_pb2_grpc as rpc

sock, what = sys.argv[1], sys.argv[2]
rt = rpc.RuntimeServiceStub(grpc.insecure_channel('unix://' + sock))
if what == 'rm':
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sys.argv[3]), timeout=60)
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sys.argv[3]), timeout=60)
    sys.exit(0)
ns, pod, uid, ctr, image, parent, logdir = sys.argv[3:10]
nsopt = pb.NamespaceOption(network=pb.NODE, pid=pb.POD, ipc=pb.NODE)
cfg = pb.PodSandboxConfig(
    metadata=pb.PodSandboxMetadata(name=pod, uid=uid, namespace=ns, attempt=0),
    log_directory=logdir,
    linux=pb.LinuxPodSandboxConfig(cgroup_parent=parent,
        security_context=pb.LinuxSandboxSecurityContext(namespace_options=nsopt)))
sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=60).pod_sandbox_id
print('sandbox', sid, flush=True)
ccfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name=ctr, attempt=0),
    image=pb.ImageSpec(image=image),
    command=['/bin/busybox', 'sh', '-c', 'while :; do :; done'], log_path=ctr + '.log',
    linux=pb.LinuxContainerConfig(
        security_context=pb.LinuxContainerSecurityContext(namespace_options=nsopt)))
cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
    sandbox_config=cfg), timeout=60).container_id
rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=60)
print('container', cid, flush=True)
