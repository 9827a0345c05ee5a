// Command todo-app runs the example's TodoMVC-style app on an address, for trapline run --upstream
// (docs/your-app.md):
//
//	go run ./cmd/todo-app -listen 127.0.0.1:8090 &
//	trapline run --traps-dir todopack --upstream todo.example.test=http://127.0.0.1:8090
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/user-app/todo"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "the address to listen on (loopback)")
	flag.Parse()
	log.Printf("todo-app on http://%s", *listen)
	log.Fatal(http.ListenAndServe(*listen, todo.New().Handler()))
}
