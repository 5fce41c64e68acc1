'use strict';
/**
 * Child process that runs s3rver for the tests; started by test/helpers/s3.ts with
 * `--openssl-legacy-provider` (s3rver encrypts ListObjectsV2 continuation tokens with DES,
 * which OpenSSL 3 only offers through its legacy provider).
 *
 * Protocol over the IPC channel:
 *   parent -> { type: 'start', directory, buckets, accessKeyId, secretAccessKey }
 *   child  -> { type: 'ready', port } | { type: 'error', message }
 * The child closes the server and exits when the parent disconnects (stop(), or the
 * parent died), so it never outlives the test run.
 */
const { createHash } = require('node:crypto');
const { mkdir, writeFile } = require('node:fs/promises');
const { IncomingMessage } = require('node:http');
const { dirname, join } = require('node:path');
const S3rver = require('s3rver');
const AWSAccount = require('s3rver/lib/models/account');
const FilesystemStore = require('s3rver/lib/stores/filesystem');

/**
 * S3 never stores the body of a PUT whose connection was cut before Content-Length bytes
 * arrived; s3rver 3.7 does (it pipes the request into the object file and commits what
 * came). Make it behave like S3, so the tests can prove that a failed upload leaves no
 * object: read the whole request first and refuse it when it is incomplete.
 */
async function completeBody(content) {
  if (!(content instanceof IncomingMessage)) return content;
  const chunks = [];
  await new Promise((resolve, reject) => {
    content.on('data', (chunk) => chunks.push(chunk));
    content.on('end', resolve);
    content.on('error', reject);
    content.on('aborted', () => reject(new Error('request aborted')));
    content.on('close', () => (content.complete ? resolve() : reject(new Error('request aborted'))));
  });
  if (!content.complete) throw new Error('request aborted');
  return Buffer.concat(chunks);
}
/**
 * s3rver 3.7 answers a PutObject, an UploadPart (and so completes a multipart upload) once
 * the body has been handed to the file's write stream, not once it is written: a HEAD or
 * GET right after, on a busy machine, reads a partial file, and a completion concatenates
 * a part still being written (a 12 MiB upload was once stored as 9 MiB). S3 is
 * read-after-write consistent, so write the whole object or part before answering, then
 * its checksum, where s3rver keeps them.
 */
FilesystemStore.prototype.putObject = async function (object) {
  let content = await completeBody(object.content);
  if (!Buffer.isBuffer(content)) content = Buffer.concat(await content.toArray());
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  await writeFile(objectPath, content);
  const md5 = createHash('md5').update(content).digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size: content.length, md5 };
};
FilesystemStore.prototype.putPart = async function (bucket, uploadId, partNumber, content) {
  let body = await completeBody(content);
  if (!Buffer.isBuffer(body)) body = Buffer.concat(await body.toArray());
  const partPath = join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber.toString());
  await mkdir(dirname(partPath), { recursive: true });
  await writeFile(partPath, body);
  const md5 = createHash('md5').update(body).digest('hex');
  await writeFile(`${partPath}.md5`, md5);
  return { size: body.length, md5 };
};

let server;

function shutdown(code) {
  const exit = () => process.exit(code);
  if (!server) return exit();
  server.close().then(exit, exit);
  setTimeout(exit, 2000).unref();
}

process.on('disconnect', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

process.once('message', async (msg) => {
  if (!msg || msg.type !== 'start') return;
  try {
    // s3rver only accepts keys of its registered accounts; register this run's random pair.
    AWSAccount.DUMMY_ACCOUNT.createKeyPair(msg.accessKeyId, msg.secretAccessKey);
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: msg.directory,
      configureBuckets: msg.buckets.map((name) => ({ name })),
    });
    const address = await server.run();
    process.send({ type: 'ready', port: address.port });
  } catch (err) {
    process.send({ type: 'error', message: err && err.stack ? err.stack : String(err) }, () => shutdown(1));
  }
});
