// Command callseq prints, for each function of upstream's StatefulSet controller files, the
// functions of those files it calls or hands over, in the order they run: the reading test
// (tests/controller/upstream/test_upstream_reading.py) compares them with the kit's twins.
//
// Usage: callseq DIR FILE.go... (DIR is pkg/controller/statefulset in the module cache). It
// prints one JSON object {"function": ["name", ...], ...} over every function and method of the
// files, Go's sort helpers Len, Swap and Less aside.
//
// The rule, which the test applies to the Python side too: a name is taken where a body calls
// it (f(...), x.f(...)) or hands it over as a value (as a call's argument, a composite literal's
// value or the right side of an assignment: ssc.worker given to wait.UntilWithContext), if it
// names one of the files' functions other than the function itself and is not a local variable.
// The names are listed in the order the calls run, as far as it shows in the text: statements
// in the order they are written, every branch of an if or a switch in turn, a call after the
// calls of its receiver and its arguments (f(g(x)) lists g, then f); a name handed over, a
// closure's calls and a defer's are where they are written.
//
// Standard library only (go/parser, go/ast): it builds in seconds, without the module proxy.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: callseq DIR FILE.go...")
		os.Exit(2)
	}
	fset := token.NewFileSet()
	var decls []*ast.FuncDecl
	for _, name := range os.Args[2:] {
		file, err := parser.ParseFile(fset, filepath.Join(os.Args[1], name), nil, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name != "Len" && fn.Name.Name != "Swap" && fn.Name.Name != "Less" {
				decls = append(decls, fn)
			}
		}
	}
	listed := map[string]bool{}
	for _, fn := range decls {
		listed[fn.Name.Name] = true
	}
	out := map[string][]string{}
	for _, fn := range decls {
		out[fn.Name.Name] = sequence(fn, listed)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// named is the name an expression calls or hands over: f or x.f.
func named(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// sequence lists the names fn's body takes (see the package comment), in that order.
func sequence(fn *ast.FuncDecl, listed map[string]bool) []string {
	seq := []string{}
	if fn.Body == nil {
		return seq
	}
	taken := func(e ast.Expr) *ast.Ident {
		if id := named(e); id != nil && listed[id.Name] && id.Name != fn.Name.Name &&
			(id.Obj == nil || id.Obj.Kind != ast.Var) {
			return id
		}
		return nil
	}
	handed := map[*ast.Ident]bool{}
	hand := func(exprs ...ast.Expr) {
		for _, e := range exprs {
			if id := taken(e); id != nil {
				handed[id] = true
			}
		}
	}
	var open []ast.Node // the nodes being walked, innermost last
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if n == nil { // leaving open's last node: a call is taken once its receiver and arguments are
			if call, ok := open[len(open)-1].(*ast.CallExpr); ok {
				if id := taken(call.Fun); id != nil {
					seq = append(seq, id.Name)
				}
			}
			open = open[:len(open)-1]
			return false
		}
		open = append(open, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			hand(n.Args...)
		case *ast.KeyValueExpr:
			hand(n.Value)
		case *ast.AssignStmt:
			hand(n.Rhs...)
		case *ast.ValueSpec:
			hand(n.Values...)
		case *ast.Ident:
			if handed[n] {
				seq = append(seq, n.Name)
			}
		}
		return true
	})
	return seq
}
