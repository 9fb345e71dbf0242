package proxywire

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
)

// maxFiles bounds the descriptors one line may carry: one per proxy.
const maxFiles = 256

// ErrNoFiles: a Sockets line came without (all) its descriptors.
var ErrNoFiles = errors.New("proxywire: a sockets line without its descriptors")

// WriteWithFiles writes line on conn with the descriptors of files
// attached (the caller still owns files and closes them).
func WriteWithFiles(conn *net.UnixConn, line []byte, files []*os.File) error {
	if len(files) > maxFiles {
		return fmt.Errorf("proxywire: %d descriptors on one line, over %d", len(files), maxFiles)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	n, _, err := conn.WriteMsgUnix(line, syscall.UnixRights(fds...), nil)
	if err == nil && n < len(line) {
		_, err = conn.Write(line[n:])
	}
	if err != nil {
		return fmt.Errorf("proxywire: %w", err)
	}
	return nil
}

// FileReader reads messages from a unix socket with the descriptors that
// ride with them (WriteWithFiles).
type FileReader struct {
	*Reader
	src *rightsReader
}

// NewFileReader reads from conn.
func NewFileReader(conn *net.UnixConn) *FileReader {
	src := &rightsReader{conn: conn}
	return &FileReader{Reader: NewReader(src), src: src}
}

// Files takes the n descriptors that rode with the last Sockets line
// read, in order; ErrNoFiles when fewer came. Files nobody takes are
// closed by Close.
func (r *FileReader) Files(n int) ([]*os.File, error) {
	r.src.mu.Lock()
	defer r.src.mu.Unlock()
	if len(r.src.files) < n {
		return nil, ErrNoFiles
	}
	out := r.src.files[:n:n]
	r.src.files = r.src.files[n:]
	return out, nil
}

// Close closes the descriptors received and not taken.
func (r *FileReader) Close() {
	r.src.mu.Lock()
	defer r.src.mu.Unlock()
	for _, f := range r.src.files {
		_ = f.Close()
	}
	r.src.files = nil
}

// rightsReader reads conn's bytes with recvmsg, keeping the descriptors
// that arrive: the kernel delivers them with the first byte of the line
// they were sent with, so they are queued before that line is whole.
type rightsReader struct {
	conn  *net.UnixConn
	mu    sync.Mutex
	files []*os.File
}

func (r *rightsReader) Read(p []byte) (int, error) {
	oob := make([]byte, syscall.CmsgSpace(4*maxFiles))
	n, oobn, _, _, err := r.conn.ReadMsgUnix(p, oob)
	if oobn > 0 {
		r.keep(oob[:oobn])
	}
	return n, err
}

func (r *rightsReader) keep(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			r.files = append(r.files, os.NewFile(uintptr(fd), "passed socket"))
		}
	}
}
