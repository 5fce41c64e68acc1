/**
 * The body of a POST that takes none. Declaring it lets the global ValidationPipe
 * (forbidNonWhitelisted) answer 400 naming any field sent, so nobody can believe a
 * `userId` or `role` they smuggled in was honoured.
 */
export class EmptyBodyDto {}
