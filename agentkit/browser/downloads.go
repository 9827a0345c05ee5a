package browser

import (
	"encoding/json"
	"sync"
	"time"
)

// Download is one download the browser began for a run, as the browser itself reported it
// (Browser.downloadWillBegin, then Browser.downloadProgress) on trapline's own browser session,
// wherever the file was to land and whoever had set the download behaviour: a download is an effect
// even when the file never reaches the run's download folder.
type Download struct {
	GUID              string `json:"guid"`
	URL               string `json:"url"`
	SuggestedFilename string `json:"suggested_filename"`
	// State is the last state the browser reported: inProgress, completed or canceled.
	State         string `json:"state"`
	ReceivedBytes int64  `json:"received_bytes"`
	// FilePath is where the browser wrote the file, once completed ("" before).
	FilePath string    `json:"file_path,omitempty"`
	Began    time.Time `json:"began"`
}

// maxDownloadURL bounds the URL a Download keeps (a data: URL can be megabytes long).
const maxDownloadURL = 2048

// downloadLog collects a run's downloads from the browser's events.
type downloadLog struct {
	mu   sync.Mutex
	list []Download
}

// event notes one of the browser's download events; other methods are ignored.
func (l *downloadLog) event(method string, raw json.RawMessage) {
	switch method {
	case "Browser.downloadWillBegin":
		var p struct {
			GUID              string `json:"guid"`
			URL               string `json:"url"`
			SuggestedFilename string `json:"suggestedFilename"`
		}
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		if len(p.URL) > maxDownloadURL {
			p.URL = p.URL[:maxDownloadURL] + "…"
		}
		l.mu.Lock()
		l.list = append(l.list, Download{GUID: p.GUID, URL: p.URL, SuggestedFilename: p.SuggestedFilename, State: "inProgress", Began: time.Now()})
		l.mu.Unlock()
	case "Browser.downloadProgress":
		var p struct {
			GUID          string  `json:"guid"`
			ReceivedBytes float64 `json:"receivedBytes"`
			State         string  `json:"state"`
			FilePath      string  `json:"filePath"`
		}
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		for i := range l.list {
			if l.list[i].GUID == p.GUID {
				l.list[i].State, l.list[i].ReceivedBytes = p.State, int64(p.ReceivedBytes)
				if p.FilePath != "" {
					l.list[i].FilePath = p.FilePath
				}
			}
		}
	}
}

func (l *downloadLog) all() []Download {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Download(nil), l.list...)
}
