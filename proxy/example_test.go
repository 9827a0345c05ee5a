package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/trapline/trapline/proxy"
)

// With no rules the proxy denies everything, and says which rule did it.
func Example() {
	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "pratiche")
	}))
	defer portal.Close()

	px, err := proxy.Start(proxy.Config{
		Rules: nil, // deny everything; pass a *policy.Policy in real use
		Hosts: map[string]string{"portale.interno.test": portal.Listener.Addr().String()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer px.Close()

	proxyURL, _ := url.Parse(px.URL())
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://portale.interno.test/pratiche")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", string(body))
	d := px.Decisions()[0]
	fmt.Println(d.Choice, d.Method, d.Host, d.Path, d.Rule)
	// Output:
	// 403 trapline proxy: denied by rule default_deny: the proxy has no rules: everything is denied
	// deny GET portale.interno.test /pratiche default_deny
}
