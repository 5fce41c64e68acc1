import { applyDecorators } from '@nestjs/common';

/**
 * One decorator made of several, applied bottom-up as when they are written one per
 * line above a property: class-validator then checks the constraints, and lists
 * their messages, in the same order as the written stack it replaces.
 */
export const decoratorStack = (...decorators: PropertyDecorator[]): PropertyDecorator => applyDecorators(...[...decorators].reverse());
