package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/devstack"
)

// motoVersion is local/moto/install.sh's pin.
const motoVersion = "5.2.1"

// TestS3 runs the contract against moto's S3 server (a real S3 API over
// HTTP: signing, checksums, error codes), started here on a free port and
// stopped after.
func TestS3(t *testing.T) {
	client, bucket := motoS3(t)
	s := blob.S3{Client: client, Bucket: bucket}
	contract(t, s)

	ctx := context.Background()
	t.Run("the SHA-256 is sent for S3 to check", func(t *testing.T) {
		// S3 refuses a body that does not hash to the header (moto does
		// not check it): the header is the body's SHA-256, kept with the
		// object.
		body := []byte("the bytes")
		if err := s.Put(ctx, "evidence/1/7/sum", body); err != nil {
			t.Fatal(err)
		}
		head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("evidence/1/7/sum"), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		if want := base64.StdEncoding.EncodeToString(sum[:]); aws.ToString(head.ChecksumSHA256) != want {
			t.Errorf("checksum %q, want %q", aws.ToString(head.ChecksumSHA256), want)
		}
	})
	t.Run("no bucket", func(t *testing.T) {
		err := blob.S3{Client: client, Bucket: "no-such-bucket"}.Put(ctx, "evidence/1/2/x", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "s3://no-such-bucket/evidence/1/2/x") {
			t.Errorf("Put to a missing bucket = %v, want an error naming it", err)
		}
	})
}

// motoS3 starts moto_server (local/moto/install.sh installs it, pinned,
// into ~/.cache/evs; run here when missing) on a free port with one bucket,
// and stops it when the test ends.
func motoS3(t *testing.T) (*s3.Client, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no S3 server")
	}
	dir := os.Getenv("MOTO_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(home, ".cache", "evs", "moto-"+motoVersion)
	}
	server := filepath.Join(dir, "bin", "moto_server")
	if _, err := os.Stat(filepath.Join(dir, ".installed-"+motoVersion)); err != nil {
		root, err := devstack.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		install := exec.Command("bash", filepath.Join(root, "local", "moto", "install.sh"))
		install.Stdout, install.Stderr = os.Stderr, os.Stderr
		if err := install.Run(); err != nil {
			t.Fatalf("local/moto/install.sh: %v", err)
		}
	}

	port := freePort(t)
	cmd := exec.Command(server, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers stop with it
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start moto_server: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("moto_server:\n%s", logs.String())
		}
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("moto_server does not answer at %s: %v", endpoint, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	bucket := "evs-evidence-test"
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return client, bucket
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
