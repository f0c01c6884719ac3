// Package motoserver starts moto's S3 server for a test: a real S3 API over
// HTTP (signing, checksums, versions, object lock, error codes) without AWS.
// The stores' S3 tests (shared/blob, shared/records) use it; under -short
// they are skipped, so the fast suite runs without Python.
package motoserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/devstack"
)

// Version is local/moto/install.sh's pin.
const Version = "5.2.1"

// Start starts moto_server (local/moto/install.sh installs it, pinned, into
// ~/.cache/evs, or MOTO_DIR; run here when missing) on a free port, stops it
// when the test ends, and returns a client of it. Under -short it skips the
// test.
func Start(t testing.TB) *s3.Client {
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
		dir = filepath.Join(home, ".cache", "evs", "moto-"+Version)
	}
	server := filepath.Join(dir, "bin", "moto_server")
	if _, err := os.Stat(filepath.Join(dir, ".installed-"+Version)); err != nil {
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

	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// Bucket creates the bucket in (its name, and what else the test needs of
// it, such as object lock, which only creation can turn on) and returns its
// name.
func Bucket(t testing.TB, client *s3.Client, in *s3.CreateBucketInput) string {
	t.Helper()
	if _, err := client.CreateBucket(context.Background(), in); err != nil {
		t.Fatalf("create bucket %s: %v", aws.ToString(in.Bucket), err)
	}
	return aws.ToString(in.Bucket)
}

// LockedBucket creates a bucket as infra creates the records bucket:
// Object Lock on (versioning with it), a version written with no date of
// its own locked days in compliance mode. It returns its name.
func LockedBucket(t testing.TB, client *s3.Client, name string, days int32) string {
	t.Helper()
	in := &s3.CreateBucketInput{Bucket: aws.String(name), ObjectLockEnabledForBucket: aws.Bool(true)}
	if region := client.Options().Region; region != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(region)}
	}
	bucket := Bucket(t, client, in)
	_, err := client.PutObjectLockConfiguration(context.Background(), &s3.PutObjectLockConfigurationInput{
		Bucket: aws.String(bucket),
		ObjectLockConfiguration: &types.ObjectLockConfiguration{
			ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{
				Mode: types.ObjectLockRetentionModeCompliance,
				Days: aws.Int32(days),
			}},
		},
	})
	if err != nil {
		t.Fatalf("lock bucket %s: %v", bucket, err)
	}
	return bucket
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
