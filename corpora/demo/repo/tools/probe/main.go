// Command probe checks that the tracker API and its cache are healthy.
// The Docker image runs it as its HEALTHCHECK.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	flag "github.com/spf13/pflag"
)

type health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	Cache   bool   `json:"cache"`
}

func main() {
	defaultURL := os.Getenv("TRACKER_API_URL")
	if defaultURL == "" {
		defaultURL = "http://localhost:8000"
	}
	url := flag.StringP("url", "u", defaultURL, "base URL of the tracker API")
	timeout := flag.Duration("timeout", 3*time.Second, "request timeout")
	flag.Parse()

	if err := probe(*url, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(1)
	}
}

func probe(baseURL string, timeout time.Duration) error {
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(baseURL + "/healthz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthz returned %s", resp.Status)
	}
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return fmt.Errorf("decoding healthz: %w", err)
	}
	if h.Status != "ok" || !h.Cache {
		return fmt.Errorf("unhealthy: status=%q cache=%t", h.Status, h.Cache)
	}
	return nil
}
