export { freePort } from '../../src/common/free-port';
