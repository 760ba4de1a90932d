// Package util is an empty stand-in for vbom.ml/util, which the module proxy refuses.
package util
