package main

import (
	"fmt"

	"k8s.io/kubernetes/pkg/controller/statefulset"
)

func main() { fmt.Println(statefulset.NewStatefulSetController != nil) }
