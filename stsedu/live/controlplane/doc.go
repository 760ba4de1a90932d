// Package controlplane pins the versions of the real Kubernetes control plane that
// `stsedu live` starts: kube-apiserver, kube-controller-manager and kubectl from
// k8s.io/kubernetes v1.37.2, and etcd v3.7.0 (the version hack/lib/etcd.sh of that
// release tests with). The commands are listed as `tool` directives in go.mod;
// stsedu/live/build.py builds them into a cache folder outside the repository.
package controlplane
