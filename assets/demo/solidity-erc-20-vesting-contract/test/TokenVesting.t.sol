// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {ERC20} from "openzeppelin-contracts/token/ERC20/ERC20.sol";
import {TokenVesting} from "../src/TokenVesting.sol";

contract Token is ERC20("Demo", "DMO") {
    constructor() { _mint(msg.sender, 1e24); }
}

contract TokenVestingTest is Test {
    Token token;
    TokenVesting vesting;
    address alice = address(0xA11CE);

    function setUp() public {
        token = new Token();
        vesting = new TokenVesting(token);
        token.approve(address(vesting), type(uint256).max);
        vesting.create(alice, 1000e18, uint64(block.timestamp), 90 days, 360 days, true);
    }

    function testNothingBeforeCliff() public {
        vm.warp(block.timestamp + 89 days);
        assertEq(vesting.vested(alice, uint64(block.timestamp)), 0);
    }

    function testLinearAfterCliff() public {
        vm.warp(block.timestamp + 180 days);
        vm.prank(alice);
        vesting.release();
        assertEq(token.balanceOf(alice), 500e18);
    }
}
